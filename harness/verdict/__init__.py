"""Verdicts: which budget applies (tolerance), how outputs compare with the
expected values (comparison), the judgement of one case (judge), and the
reference results it needs, computed once and kept (reference_cache)."""
