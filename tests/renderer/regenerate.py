"""Rewrite the golden images from the current renderer: ``python -m tests.renderer.regenerate``.

Run it after a deliberate change to the look, then LOOK at every image before committing.
"""

from __future__ import annotations

from tests.renderer.golden_cases import CASES, GOLDEN_DIR, golden_path


def main() -> None:
    GOLDEN_DIR.mkdir(exist_ok=True)
    for name, make in CASES.items():
        path = golden_path(name)
        data = make()
        path.write_bytes(data)
        print(f"{path} ({len(data) / 1024:.1f} KB)")


if __name__ == "__main__":
    main()
