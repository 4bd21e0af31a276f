"""The ofc-stats exception hierarchy.

Every error a user can cause is a ``ValueError`` subclass with a message that
names what was wrong and where it came from, so callers can catch one family
(``OfcError``) or one precise case.
"""

from __future__ import annotations


class OfcError(ValueError):
    """Base class of every input error ofc-stats raises.

    Its message is one line on a terminal (stored text it quotes cannot add one); an error
    that lists choices, one a line, gives them as ``choices`` instead.
    """

    def __init__(self, message: str = "", choices: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.choices = choices


class CardError(OfcError):
    """A card token that is not a card, or a card id out of range."""


class BoardError(OfcError):
    """An impossible board: wrong row sizes, duplicate cards, jokers off a joker deck."""


class HandError(OfcError):
    """An impossible hand: wrong seat count, a card on two boards, bad stacks."""


class RulesetError(OfcError):
    """An unknown ruleset name, or a ruleset option with a bad key or value."""


class UnknownFormat(OfcError):
    """A format name that no parser registers."""


class NotText(OfcError):
    """Input read as lines of text (`score`, `solve-fantasy`) that is not UTF-8 text at all."""


class FormatError(OfcError):
    """A hand that breaks its file format's rules (each format has its own subclass)."""


class AppFormatError(FormatError):
    """A hand the mobile apps' JSON format cannot hold."""


class OpenFormatError(FormatError):
    """A line that breaks the ofc-stats open format (docs/format.md)."""


class SwcError(FormatError):
    """A Spades-with-Chips capture that breaks shared/formats/SWC.md."""


class FpdbError(FormatError):
    """An fpdb-3 database row that is not a hand ofc-stats can read."""


class DatasetLocked(OfcError):
    """Another process holds the dataset's lock."""


class DatasetError(OfcError):
    """A folder that is not a usable ofc-stats dataset (or one of an unknown version)."""


class UnknownPlayer(OfcError):
    """A player filter that matches no stored player; the message lists the closest names."""


class UnknownFilter(OfcError):
    """A report filter (room, ruleset) naming nothing in the dataset; lists the closest names."""


class NoHands(OfcError):
    """Valid filters that match no hand: a report would be empty."""


class UnknownHand(OfcError):
    """A hand key (or room hand id) that names no stored hand, or more than one."""


class UnplayablePosition(OfcError):
    """A stored decision the grader cannot replay: a play that does not fit, too few cards."""


class SparkUnavailable(OfcError):
    """Spark cannot run here: PySpark not installed, no Java, or a bad --conf."""


class SparkJobFailed(OfcError):
    """A Spark recompute stopped (a task failed): batches committed before it stay committed."""


class UnknownSource(OfcError):
    """A file or batch id that ``forget`` finds nowhere in the dataset."""
