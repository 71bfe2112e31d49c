"""``trace verify``: every line parses, is canonical, validates against the bundled Agent
Trace schema, carries its own digest (:mod:`~intent_ls.ledger.verify.lines`), and is
linked into the chain: its ``prev`` names an earlier line, and a later record names it
(:mod:`~intent_ls.ledger.verify.chain`). :mod:`~intent_ls.ledger.verify.run` makes the
pass, in two processes for a large ledger (:mod:`~intent_ls.ledger.verify.parallel`),
handing back the lines an :mod:`~intent_ls.ledger.verify.interest` asks for."""

from intent_ls.ledger.verify.interest import Interest
from intent_ls.ledger.verify.lines import CONFLICT_MESSAGE, check_line, check_record, validator
from intent_ls.ledger.verify.results import Problem, VerifyResult, WantedLine
from intent_ls.ledger.verify.run import verify_ledger

__all__ = [
    "CONFLICT_MESSAGE",
    "Interest",
    "Problem",
    "VerifyResult",
    "WantedLine",
    "check_line",
    "check_record",
    "validator",
    "verify_ledger",
]
