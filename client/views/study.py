"""The analysis board scene: any variant, stones set up by clicking, the side to move, then
moves explored from there with the engine's lines and (on small boards) every cell's value."""

from __future__ import annotations

import pygame

from client import theme
from client.anaboard import PAINTS, VARIANTS, AnalysisBoard
from client.analysis import line_words
from client.geometry import BoardGeometry
from client.labels import LABELS
from client.views.analysis import PV_SHOWN, draw_line, draw_values
from client.views.board import BoardPicture, board_geometry, draw_board
from client.views.replay import room_layout
from client.widgets import Frame, panel


def side_names(marks: bool) -> tuple[str, str]:
    """What the two colours are called: X and O on small boards, else black and white."""
    return ("X", "O") if marks else ("Black", "White")


def draw_study(frame: Frame, study: AnalysisBoard, numbers: bool, waiting: bool) -> BoardGeometry:
    """The analysis board and its panel; ``waiting``: an answer is on its way."""
    surf = frame.surface
    board_area, side = room_layout(surf.get_size())
    info = study.info
    geo = board_geometry(info, board_area)
    outcome = study.outcome()
    line = tuple((m.x, m.y) for m in outcome.line) if outcome is not None else ()
    setup = tuple(sorted(study.stones.items()))
    picture = BoardPicture(
        info, study.moves, line=line, numbers=numbers, setup=setup, first=study.to_move
    )
    draw_board(surf, geo, picture)
    here = study.fresh
    taken = set(study.stones) | set(study.moves)
    if study.mode == "play":
        draw_values(surf, geo, here, taken)
        if here is not None:
            shown = 0 if here.values else PV_SHOWN
            draw_line(surf, geo, here.best, taken, shown, info, here.to_move)

    inner = panel(surf, side)
    y = _variant_rows(frame, inner, study)
    modes = [("Set up", "study_mode", "setup"), ("Play and analyse", "study_mode", "play")]
    y = _row(frame, inner, y, [(lab, a, m, study.mode == m) for lab, a, m in modes])
    names = side_names(info.uses_marks)
    if study.mode == "setup":
        y = _setup_rows(frame, inner, y, study, names)
    else:
        y = _play_rows(frame, inner, y, study, waiting, names)
    y += 4
    for sentence in _explanation(study, waiting):
        for t in theme.wrap(sentence, 13, inner.w):
            if y > inner.bottom - 104:
                break
            theme.text(surf, t, (inner.x, y), 13, theme.TEXT if here else theme.MUTED)
            y += 17
    if study.mode == "play":
        versus = pygame.Rect(inner.x, inner.bottom - 80, inner.w, 36)
        frame.button(versus, "Continue from here against the bot", "versus_bot", size=13)
    frame.button(
        pygame.Rect(inner.x, inner.bottom - 36, inner.w, 36), "Back (Esc)", "study_back", size=14
    )
    return geo


def _variant_rows(frame: Frame, inner: pygame.Rect, study: AnalysisBoard) -> int:
    """The panel's title, the variants (a custom board's size and rule too); the y below."""
    surf = frame.surface
    theme.text(surf, "Analysis board", inner.topleft, 18, bold=True)
    theme.text(
        surf, study.info.title, (inner.right, inner.y + 3), 13, theme.MUTED, anchor="topright"
    )
    y = inner.y + 30
    offered = [(LABELS.button(n), "study_variant", n, study.name == n) for n in VARIANTS]
    y = _row(frame, inner, _row(frame, inner, y, offered[:3]), offered[3:])  # the server's words
    if study.name == "mnk":
        for i, (label, what) in enumerate((("w", "width"), ("h", "height"), ("k", "k"))):
            _stepper(frame, inner.x + i * (inner.w // 3), y, label, str(getattr(study, what)), what)
        y += 34
        exact = "exactly k" if study.rule == "exact" else "k or more"
        frame.button(pygame.Rect(inner.x, y, inner.w, 28), f"Rule: {exact}", "study_rule", size=13)
        y += 36
    return y


def _explanation(study: AnalysisBoard, waiting: bool) -> list[str]:
    """What the panel says under its rows: the position's problem, how to set up, the
    engine's line, or that it is asked."""
    here = study.fresh
    problem = study.problem()
    if problem is not None and study.mode == "play":
        return [problem]
    if study.mode == "setup":
        return [
            "Click cells to put the colour chosen; pick who is to move, then "
            "Play and analyse. Esc goes back."
        ]
    if here is not None:
        return line_words(here, study.info.height)
    return ["Asking the engine…" if waiting else "Press Analyse (A)."]


def _setup_rows(
    frame: Frame, inner: pygame.Rect, y: int, study: AnalysisBoard, names: tuple[str, str]
) -> int:
    """Setup mode: the colour a click puts, the side to move, Clear."""
    labels = [f"Put {names[0]}", f"Put {names[1]}", "Erase"]
    paints = [
        (lab, "study_paint", p, study.paint == p)
        for lab, (p, _) in zip(labels, PAINTS, strict=True)
    ]
    y = _row(frame, inner, y, paints)
    sides = [(f"{names[s]} to move", "study_side", s, study.to_move == s) for s in (0, 1)]
    y = _row(frame, inner, y, [*sides, ("Clear", "study_clear", None, False)])
    return y


def _play_rows(
    frame: Frame,
    inner: pygame.Rect,
    y: int,
    study: AnalysisBoard,
    waiting: bool,
    names: tuple[str, str],
) -> int:
    """Play mode: Back, Play best, Analyse and the number of lines."""
    side = names[study.side()]
    theme.text(frame.surface, f"{side} to move", (inner.x, y + 4), 14, bold=True)
    _stepper(frame, inner.x + inner.w // 2, y, "lines", str(study.lines), "lines")
    y += 32
    best_ok = study.fresh is not None and study.fresh.best is not None
    buttons = [
        ("Back (\u232b)", "study_undo", None, bool(study.moves)),
        ("Play best (B)", "study_best", None, best_ok),
        ("Analyse (A)", "study_analyse", None, not waiting),
    ]
    bw = (inner.w - 16) // 3
    for i, (label, action, arg, enabled) in enumerate(buttons):
        rect = pygame.Rect(inner.x + i * (bw + 8), y, bw, 32)
        kind = "primary" if action == "study_analyse" else "normal"
        frame.button(rect, label, action, arg, kind=kind, enabled=enabled, size=13)
    return y + 40


def _row(
    frame: Frame, inner: pygame.Rect, y: int, options: list[tuple[str, str, object, bool]]
) -> int:
    """Buttons side by side across the panel; the next y."""
    gap = 6
    bw = (inner.w - gap * (len(options) - 1)) // len(options)
    for i, (label, action, arg, selected) in enumerate(options):
        rect = pygame.Rect(inner.x + i * (bw + gap), y, bw, 30)
        frame.button(rect, label, action, arg, selected=selected, size=12)
    return y + 38


def _stepper(frame: Frame, x: int, y: int, label: str, value: str, what: str) -> None:
    """``label [-] value [+]``."""
    theme.text(frame.surface, label, (x, y + 14), 13, theme.MUTED, anchor="midleft")
    bx = x + theme.font(13).size(label)[0] + 6
    frame.button(pygame.Rect(bx, y + 2, 24, 24), "\u2212", "study_step", (what, -1), size=14)
    theme.text(frame.surface, value, (bx + 38, y + 14), 15, bold=True, anchor="center")
    frame.button(pygame.Rect(bx + 52, y + 2, 24, 24), "+", "study_step", (what, 1), size=14)
