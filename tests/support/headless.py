"""The pygame client's ``App`` run headless on a :class:`FakeNet`: made, welcomed, clicked."""

from __future__ import annotations

from typing import Any

import pygame

from client.app import ANY, App
from server.core.pairing.seeks import seek_form
from server.core.rating.pools import FORM_POOLS
from support.fakenet import FakeNet


def click(pos: tuple[int, int]) -> list[pygame.event.Event]:
    """The events of one left click at ``pos`` (the pointer moves there first)."""
    return [
        pygame.event.Event(pygame.MOUSEMOTION, pos=pos, rel=(0, 0), buttons=(0, 0, 0)),
        pygame.event.Event(pygame.MOUSEBUTTONDOWN, pos=pos, button=1),
    ]


def welcomed_app(size: tuple[int, int] = (1100, 720)) -> tuple[App, FakeNet]:
    """An app named alice that the (fake) server has welcomed, and its transport."""
    pygame.font.init()
    net = FakeNet()
    a = App(net, name="alice", size=size)
    welcome = {"type": "welcome", "protocol": 1, "player": "p_a", "session": "S", "name": "alice"}
    net.inbox.append(welcome | {"rating_pools": FORM_POOLS, "seek_form": seek_form()})
    a.step()
    return a, net


def click_action(a: App, action: str, arg: Any = ANY) -> None:
    """Click the hotspot of ``action`` (with ``arg``) as the last frame drew it."""
    spot = a.hotspot(action, arg)
    assert spot is not None, (action, arg, a.scene)
    a.step(click(spot.rect.center))
