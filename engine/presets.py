"""The hnefatafl-family presets of RULES.md section 2, in its order: rules as data."""

from __future__ import annotations

from engine.rules import NO_SIDE, Escape, KingStrength, Repetition, Rules, ThroneStop
from engine.types import Side

COPENHAGEN_START = "/3ttttt3/5t5/11/t4T4t/t3TTT3t/tt1TTKTT1tt/t3TTT3t/t4T4t/11/5t5/3ttttt3/"
TABLUT_START = "/3ttt3/4t4/4T4/t3T3t/ttTTKTTtt/t3T3t/4T4/4t4/3ttt3/"
BRANDUBH_START = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
TAWLBWRDD_START = "/4ttt4/4t1t4/5t5/5T5/tt2TTT2tt/t1tTTKTTt1t/tt2TTT2tt/5T5/5t5/4t1t4/4ttt4/"
ALEA_EVANGELII_START = (
    "/2t2t7t2t2/19/t4t7t4t/7t1t1t7/6t1T1T1t6/t1t2t7t2t1t/4t4T4t4/3t4T1T4t3/"
    "4T2T1T1T2T4/3t2T1TKT1T2t3/4T2T1T1T2T4/3t4T1T4t3/4t4T4t4/t1t2t7t2t1t/"
    "6t1T1T1t6/7t1t1t7/t4t7t4t/19/2t2t7t2t2/"
)

ATTACKERS_ONLY: frozenset[Side] = frozenset({Side.ATTACKERS})
CORNERS_11 = frozenset({"a1", "k1", "a11", "k11"})
CORNERS_9 = frozenset({"a1", "i1", "a9", "i9"})
CORNERS_7 = frozenset({"a1", "g1", "a7", "g7"})
CORNER_BLOCKS_19 = frozenset(
    {
        *("a1", "a2", "b1", "b2"),
        *("s1", "s2", "r1", "r2"),
        *("a19", "a18", "b19", "b18"),
        *("s19", "s18", "r19", "r18"),
    }
)

COPENHAGEN = Rules(
    id="copenhagen",
    name="Copenhagen Hnefatafl",
    summary=(
        "The World Tafl Federation's 11x11 game: the attackers move first, the king escapes to a "
        "corner and is captured on four sides (three and the empty throne beside it), never on the "
        "edge. Rows on the edge can be captured as a shieldwall, the defenders win with an exit "
        "fort on the edge, and the attackers win by encircling every defender. A position "
        "repeated three times loses for the defenders."
    ),
    size=11,
    start=COPENHAGEN_START,
    corners=CORNERS_11,
    throne="f6",
    occupied_throne_hostile_to=ATTACKERS_ONLY,
    shieldwall=True,
    exit_fort=True,
    encirclement=True,
    repetition=Repetition.DEFENDERS_LOSE,
    source="seed 002 (Copenhagen section); aagenielsen.dk rules of 2024",
)

FETLAR = Rules(
    id="fetlar",
    name="Fetlar Hnefatafl",
    summary=(
        "The Shetland tournament game on 11x11: the attackers move first and the king escapes to "
        "a corner. He is captured on four sides (three and the empty throne beside it); on the "
        "edge only when he is the last defender. Encircling every defender wins for the "
        "attackers, and a position repeated three times is a draw."
    ),
    size=11,
    start=COPENHAGEN_START,
    corners=CORNERS_11,
    throne="f6",
    occupied_throne_hostile_to=ATTACKERS_ONLY,
    lone_king_captured_on_edge=True,
    encirclement=True,
    repetition=Repetition.DRAW,
    source="seeds 002, 003",
)

HNEFATAFL = Rules(
    id="hnefatafl",
    name="Hnefatafl, unarmed king",
    summary=(
        "11x11 with the Copenhagen layout; the attackers move first and the king escapes to a "
        "corner. The king cannot capture; he is taken by four attackers, or three on the edge, "
        "with the corners and the empty throne counting as attackers. A man on the edge falls to "
        "a single enemy moving next to it, and a position repeated three times is a draw."
    ),
    size=11,
    start=COPENHAGEN_START,
    corners=CORNERS_11,
    throne="f6",
    edge_hostile=True,
    king_hammer=False,
    king_anvil=False,
    king_strength=KingStrength.STRONG_OR_3_AT_EDGE,
    repetition=Repetition.DRAW,
    source="seed 001",
)

TABLUT = Rules(
    id="tablut",
    name="Tablut (Linnaeus)",
    summary=(
        "Linnaeus' Lapland game on 9x9: the attackers move first and the king wins on any edge "
        "square. He is captured on four sides on or next to the throne, and between two "
        "attackers elsewhere. Nobody may stop on the empty throne, which is hostile to all; a "
        "position repeated three times is a draw."
    ),
    size=9,
    start=TABLUT_START,
    escape=Escape.EDGE,
    throne="e5",
    throne_stop=ThroneStop.NOBODY,
    king_strength=KingStrength.STRONG_NEAR_THRONE,
    repetition=Repetition.DRAW,
    source="seed 002, OpenTafl Tablut",
)

TABLUT_CORNER = Rules(
    id="tablut-corner",
    name="Tablut, corner escape",
    summary=(
        "Tablut's 9x9 layout with the king escaping to a corner; the attackers move first. The "
        "king is captured by four attackers, or three when he stands on the edge. No square is "
        "hostile: every capture needs two pieces. A position repeated three times is a draw."
    ),
    size=9,
    start=TABLUT_START,
    corners=CORNERS_9,
    throne="e5",
    corner_hostile_to=NO_SIDE,
    empty_throne_hostile_to=NO_SIDE,
    king_strength=KingStrength.STRONG_OR_3_AT_EDGE,
    repetition=Repetition.DRAW,
    source="seed 004",
)

TABLUT_LINNAEAN = Rules(
    id="tablut-linnaean",
    name="Tablut, Linnaean capture (OpenTafl)",
    summary=(
        "OpenTafl's 9x9 Tablut: the attackers move first and the king wins on any edge square. He "
        "is captured on four sides on or next to the throne, and between two attackers elsewhere. "
        "When he sits on the throne with attackers on three sides, a defender on his fourth side "
        "can be captured against him and the throne. Nobody may stop on the empty throne, which "
        "is hostile to all; encircling every defender wins for the attackers, and a position "
        "repeated three times is a draw."
    ),
    size=9,
    start=TABLUT_START,
    escape=Escape.EDGE,
    throne="e5",
    throne_stop=ThroneStop.NOBODY,
    king_strength=KingStrength.STRONG_NEAR_THRONE,
    linnaean_capture=True,
    encirclement=True,
    repetition=Repetition.DRAW,
    source="OpenTafl's Tablut rules string (linc:y)",
)

BRANDUBH = Rules(
    id="brandubh",
    name="Brandubh",
    summary=(
        "The small Irish game on 7x7: the attackers move first and the king escapes to a corner. "
        "He is captured by four attackers on the throne, three and the throne next to it, and "
        "two anywhere else. A position repeated three times is a draw."
    ),
    size=7,
    start=BRANDUBH_START,
    corners=CORNERS_7,
    throne="d4",
    occupied_throne_hostile_to=ATTACKERS_ONLY,
    king_strength=KingStrength.STRONG_NEAR_THRONE,
    repetition=Repetition.DRAW,
    source="seed 002 (layout); data/brandubh.csv must replay",
)

TAWLBWRDD = Rules(
    id="tawlbwrdd",
    name="Tawlbwrdd (Bell layout)",
    summary=(
        "The Welsh game on 11x11 with no throne and no corners: the attackers move first and the "
        "king wins on any edge square. The king is weak, captured between two attackers like any "
        "man. A position repeated three times is a draw."
    ),
    size=11,
    start=TAWLBWRDD_START,
    escape=Escape.EDGE,
    king_strength=KingStrength.WEAK,
    repetition=Repetition.DRAW,
    source="seed 002 (layout); OpenTafl Tawlbwrdd",
)

ALEA_EVANGELII = Rules(
    id="alea-evangelii",
    name="Alea Evangelii",
    summary=(
        "The great 19x19 game: the attackers move first and the king escapes to one of the four "
        "2x2 corner blocks, which are hostile to all. He is captured on four sides. Nobody may "
        "stop on the centre square, which is hostile when empty; a position repeated three times "
        "is a draw."
    ),
    size=19,
    start=ALEA_EVANGELII_START,
    corners=CORNER_BLOCKS_19,
    throne="j10",
    throne_stop=ThroneStop.NOBODY,
    repetition=Repetition.DRAW,
    source="seed 002 (name); OpenTafl's reconstruction",
)

PRESETS: dict[str, Rules] = {
    rules.id: rules
    for rules in (
        COPENHAGEN,
        FETLAR,
        HNEFATAFL,
        TABLUT,
        TABLUT_CORNER,
        TABLUT_LINNAEAN,
        BRANDUBH,
        TAWLBWRDD,
        ALEA_EVANGELII,
    )
}
"""The hnefatafl-family presets by id, in the order of RULES.md section 2 (OpenTafl's Linnaean
Tablut, not in it, after the other Tablut presets)."""

DEFAULT_VARIANT = COPENHAGEN.id
"""The variant played when none is named."""
