"""The room's reported results against the rules: points, Fantasyland, money, ledgers."""

from ofc_stats.audit.guess import guess_rulesets
from ofc_stats.audit.infer import infer_rules
from ofc_stats.audit.ledger import ledger
from ofc_stats.audit.output import write_mismatches
from ofc_stats.audit.points import AuditReport, audit, ruleset_results
from ofc_stats.audit.rules_file import write_rule_files

__all__ = [
    "AuditReport",
    "audit",
    "guess_rulesets",
    "infer_rules",
    "ledger",
    "ruleset_results",
    "write_mismatches",
    "write_rule_files",
]
