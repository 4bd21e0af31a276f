"""How a room pays out a hand: its rake, how it settles a short stack, the mistakes its
software makes, and the ``[room]`` table of a ruleset file that writes them down.

These are not rules of the game (the engine never needs them) nor findings of
an audit: they are the room's way of paying, which the audit infers and judges
(``ofc_stats.audit``) and the simulator plays by (``ofc_stats.sim``).  Both
import this package; it imports only the engine and the error classes.

Named ``payouts``, not ``money`` (the audit's verdicts on money are
``ofc_stats.audit.money``) nor ``rooms`` (``ofc_stats.sim.rooms`` simulates
whole rooms, and ``room`` is a hand's column naming one).
"""
