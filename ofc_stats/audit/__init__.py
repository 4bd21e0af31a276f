"""The room's reported results against the rules: points, Fantasyland, money."""

from ofc_stats.audit.points import AuditReport, audit, guess_rulesets, use_ruleset, write_mismatches

__all__ = ["AuditReport", "audit", "guess_rulesets", "use_ruleset", "write_mismatches"]
