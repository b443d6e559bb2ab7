"""Themes as data: Textual `Theme` objects, and the app's stylesheet beside them."""

from __future__ import annotations

from pathlib import Path

from textual.theme import Theme

STYLESHEET = Path(__file__).with_name("rivulet.tcss")

DARK = Theme(
    name="rivulet-dark",
    primary="#4FB3D9",
    secondary="#7AA2F7",
    accent="#F7B267",
    warning="#E0AF68",
    error="#F7768E",
    success="#9ECE6A",
    foreground="#D8DEE9",
    background="#14171C",
    surface="#1B1F26",
    panel="#232833",
    dark=True,
    variables={"footer-key-foreground": "#4FB3D9", "block-cursor-text-style": "none"},
)

LIGHT = Theme(
    name="rivulet-light",
    primary="#0A6C91",
    secondary="#3B5BA9",
    accent="#B35C00",
    warning="#9A6700",
    error="#C0243C",
    success="#2E7D32",
    foreground="#1F2328",
    background="#FAFAF7",
    surface="#F0F1EC",
    panel="#E4E6DF",
    dark=False,
    variables={"footer-key-foreground": "#0A6C91", "block-cursor-text-style": "none"},
)

THEMES = (DARK, LIGHT)
