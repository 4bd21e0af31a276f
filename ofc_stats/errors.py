"""The ofc-stats exception hierarchy.

Every error a user can cause is a ``ValueError`` subclass with a message that
names what was wrong and where it came from, so callers can catch one family
(``OfcError``) or one precise case.
"""

from __future__ import annotations


class OfcError(ValueError):
    """Base class of every input error ofc-stats raises."""


class CardError(OfcError):
    """A card token that is not a card, or a card id out of range."""


class BoardError(OfcError):
    """An impossible board: wrong row sizes, duplicate cards, jokers off a joker deck."""


class HandError(OfcError):
    """An impossible hand: wrong seat count, a card on two boards, bad stacks."""


class RulesetError(OfcError):
    """An unknown ruleset name, or a ruleset option with a bad key or value."""
