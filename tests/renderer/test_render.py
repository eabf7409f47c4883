"""Board images: size, what each square shows, marks, orientation, themes, the king, errors."""

from __future__ import annotations

import dataclasses

import pytest
from PIL import ImageChops

import engine
from engine.types import Piece, Square, parse_square
from renderer import CONTRAST, THEMES, WOOD, BoardView, board_geometry, render
from renderer.geometry import min_width
from tests.renderer.games import halatafl_chain, new_game, played
from tests.renderer.pixels import (
    changed_outside_board,
    changed_squares,
    mismatched_squares,
    open_png,
)


def squares(names: str, size: int) -> set[Square]:
    return {parse_square(name, size) for name in names.split()}


def line_between(start: Square, end: Square, size: int) -> set[Square]:
    """The squares a rook move from ``start`` to ``end`` crosses, both ends included."""
    (r0, f0), (r1, f1) = divmod(start, size), divmod(end, size)
    step_r, step_f = (r1 > r0) - (r1 < r0), (f1 > f0) - (f1 < f0)
    steps = max(abs(r1 - r0), abs(f1 - f0))
    return {(r0 + i * step_r) * size + f0 + i * step_f for i in range(steps + 1)}


def copenhagen_after(*moves: str) -> engine.Game:
    return played("copenhagen", *moves)


@pytest.mark.parametrize("variant", list(engine.VARIANTS))
def test_every_preset_renders_its_start_square_by_square(variant: str) -> None:
    game = new_game(variant)
    image = open_png(render(game))
    geometry = board_geometry(game.size)
    assert image.size == (800, 800)
    assert geometry.cell * game.size <= 800
    view = BoardView.from_game(game)
    assert view.size == engine.VARIANTS[variant].size
    assert mismatched_squares(image, geometry, WOOD, view, skip=set()) == []


@pytest.mark.parametrize("width", [300, 555, 800, 1200])
@pytest.mark.parametrize("variant", ["brandubh", "copenhagen", "alea-evangelii"])
def test_the_image_is_as_wide_and_high_as_asked(variant: str, width: int) -> None:
    game = new_game(variant)
    image = open_png(render(game, width=width))
    assert image.size == (width, width)
    geometry = board_geometry(game.size, width=width)
    left, top, right, bottom = geometry.board_box
    assert left == top and right == bottom and left > 0 and right < width
    assert mismatched_squares(image, geometry, WOOD, BoardView.from_game(game), set()) == []


def test_a_too_narrow_image_is_refused_with_the_least_width() -> None:
    game = new_game("alea-evangelii")
    with pytest.raises(ValueError, match=f"at least {min_width(19)} px"):
        render(game, width=min_width(19) - 1)
    assert open_png(render(game, width=min_width(19))).size == (min_width(19),) * 2


def test_the_geometry_maps_pixels_back_to_squares() -> None:
    for viewer in ("attackers", "defenders"):
        geometry = board_geometry(11, viewer=viewer)
        for square in range(121):
            assert geometry.square_at(*geometry.center(square)) == square
        assert geometry.square_at(2, 2) is None


def test_the_last_move_marks_its_path_and_nothing_else() -> None:
    game = copenhagen_after("d1-d3")
    view = BoardView.from_game(game)
    unmarked = dataclasses.replace(view, last_move=())
    geometry = board_geometry(11)
    marked_image, plain_image = open_png(render(view)), open_png(render(unmarked))
    path = line_between(parse_square("d1", 11), parse_square("d3", 11), 11)
    assert changed_squares(marked_image, plain_image, geometry) == path
    assert not changed_outside_board(marked_image, plain_image, geometry)


def test_captured_squares_are_marked_and_the_pieces_are_gone() -> None:
    # the opening of a recorded game (shared/data/copenhagen.csv): g3-e3 captures e2
    game = copenhagen_after("d1-d3", "e5-e2", "g1-g3", "f4-c4", "g3-e3")
    assert game.history[-1].captures == ("e2",)
    view = BoardView.from_game(game)
    uncaptured = dataclasses.replace(view, captures=frozenset())
    geometry = board_geometry(11)
    changed = changed_squares(open_png(render(view)), open_png(render(uncaptured)), geometry)
    assert changed == squares("e2", 11)
    assert game.piece_at(parse_square("e2", 11)) is None


def test_the_legal_moves_of_a_chosen_piece_are_dotted() -> None:
    game = new_game("brandubh")
    shown = open_png(render(game, moves_of="d2"))
    plain = open_png(render(game))
    targets = {m.target for m in game.legal_moves() if m.origin == parse_square("d2", 7)}
    assert targets
    changed = changed_squares(shown, plain, board_geometry(7))
    assert changed == targets | {parse_square("d2", 7)}


def test_moves_of_an_empty_square_is_refused() -> None:
    with pytest.raises(ValueError, match="no piece on a2"):
        render(new_game("brandubh"), moves_of="a2")


def test_turning_the_board_puts_a1_top_right_and_keeps_every_piece_on_its_square() -> None:
    game = copenhagen_after("d1-d3")
    view = BoardView.from_game(game)
    normal, turned = board_geometry(11), board_geometry(11, viewer="defenders")
    a1 = parse_square("a1", 11)
    assert normal.center(a1)[0] < 400 < normal.center(a1)[1]
    assert turned.center(a1)[0] > 400 > turned.center(a1)[1]
    image = open_png(render(game, viewer="defenders"))
    skip = line_between(parse_square("d1", 11), parse_square("d3", 11), 11)
    assert mismatched_squares(image, turned, WOOD, view, skip) == []
    assert mismatched_squares(image, normal, WOOD, view, skip) != []


def test_the_turned_coordinates_read_backwards() -> None:
    game = new_game("brandubh")
    normal = open_png(render(game))
    turned = open_png(render(game, viewer="black"))
    geometry = board_geometry(7)
    left, top, right, _ = geometry.board_box
    # the label strip above the board: the turned one is the normal one mirrored
    labels = (left, 0, right, top)
    assert ImageChops.difference(normal.crop(labels), turned.crop(labels)).getbbox() is not None
    first_label = normal.crop((left, 0, left + geometry.cell, top))
    last_label_turned = turned.crop((right - geometry.cell, 0, right, top))
    assert ImageChops.difference(first_label, last_label_turned).getbbox() is None


@pytest.mark.parametrize("theme", list(THEMES.values()))
def test_the_king_differs_from_a_defender_in_shape_not_only_colour(theme: object) -> None:
    assert theme in (WOOD, CONTRAST)
    position = "/3t3/3t3/3T3/ttT1Ktt/3T3/3t3/3t3/"  # king on e4, defender c4, same square colour
    game = engine.Game.from_position("brandubh", position, "attackers")
    image = open_png(render(game, theme=theme)).convert("L")  # brightness only
    geometry = board_geometry(7)
    king, defender = squares("e4", 7).pop(), squares("c4", 7).pop()
    assert (king + defender) % 2 == 0
    difference = ImageChops.difference(
        image.crop(geometry.box(king)), image.crop(geometry.box(defender))
    )
    strongly_different = difference.point(lambda v: 255 if v > 80 else 0).histogram()[255]
    assert strongly_different > 0.15 * geometry.cell**2


def test_a_captured_king_is_drawn_captured() -> None:
    # Brandubh's king is weak away from the throne: a5 and c5 close him in on b5
    game = engine.Game.from_position("brandubh", "/7/7/7/7/tK5/7/2t4/", "attackers")
    ply = game.play("c7-c5")
    assert game.outcome is not None and game.outcome.reason is engine.Reason.KING_CAPTURED
    assert ply.captures == ()
    view = BoardView.from_game(game)
    king = parse_square("b5", 7)
    assert view.fallen_king == king
    standing = dataclasses.replace(view, fallen_king=None)
    geometry = board_geometry(7)
    changed = changed_squares(open_png(render(view)), open_png(render(standing)), geometry)
    assert changed == {king}


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"theme": "neon"}, "unknown theme 'neon'; choose one of: wood, contrast"),
        ({"viewer": "north"}, "unknown viewer 'north'"),
    ],
)
def test_bad_options_are_refused_clearly(options: dict[str, str], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        render(new_game("brandubh"), **options)  # type: ignore[arg-type]


def test_the_contrast_theme_draws_every_square_in_its_own_colours() -> None:
    game = copenhagen_after("d1-d3", "f4-c4")
    view = BoardView.from_game(game)
    image = open_png(render(game, theme="contrast"))
    skip = line_between(parse_square("f4", 11), parse_square("c4", 11), 11)
    assert mismatched_squares(image, board_geometry(11), CONTRAST, view, skip) == []


def test_halatafl_sides_look_alike_but_differ_in_brightness() -> None:
    game = new_game("halatafl")
    image = open_png(render(game)).convert("L")
    geometry = board_geometry(7)
    white, black = parse_square("b1", 7), parse_square("b7", 7)
    assert game.piece_at(white) is Piece.WHITE and game.piece_at(black) is Piece.BLACK
    white_level = image.getpixel(geometry.center(white))
    black_level = image.getpixel(geometry.center(black))
    assert isinstance(white_level, int) and isinstance(black_level, int)
    assert white_level - black_level > 150


def test_a_halatafl_chain_marks_every_landing_square_and_its_capture() -> None:
    game = halatafl_chain()  # d6-f4-d2: over e5 (black's own, stays) then over e3 (taken)
    ply = game.history[-1]
    assert ply.captures == ("e3",)
    view = BoardView.from_game(game)
    unmarked = dataclasses.replace(view, last_move=(), captures=frozenset())
    geometry = board_geometry(7)
    changed = changed_squares(open_png(render(view)), open_png(render(unmarked)), geometry)
    # the path runs d6 -> e5 -> f4 -> e3 -> d2 through the squares it jumps; the diagonal
    # line may graze the neighbours where it crosses square corners, never beyond them
    assert squares("d6 e5 f4 e3 d2", 7) <= changed
    assert changed <= squares("d6 e6 f6 d5 e5 f5 d4 e4 f4 d3 e3 f3 d2 e2 f2", 7)
    waypoint = parse_square("f4", 7)
    marked_f4 = open_png(render(view)).getpixel(geometry.center(waypoint))
    plain_f4 = open_png(render(unmarked)).getpixel(geometry.center(waypoint))
    assert marked_f4 != plain_f4


def test_a_board_view_from_a_position_string_renders_like_the_game() -> None:
    position = "/3t3/3t3/3T3/ttTKTtt/3T3/3t3/3t3/"
    view = BoardView.from_position(position, "brandubh")
    assert render(view) == render(new_game("brandubh"))


def test_a_position_that_does_not_fit_the_variant_is_refused() -> None:
    with pytest.raises(ValueError):
        BoardView.from_position("/3t3/3t3/", "brandubh")


def test_a_board_view_rejects_squares_off_the_board() -> None:
    with pytest.raises(ValueError, match=r"squares \[49\] are off a 7x7 board"):
        BoardView(7, {49: Piece.ATTACKER})
