"""How close sums of products come: TOSA's dot-product data sets and
compliance check applied beside the WPT verdict. The command is ``driver.accuracy``."""

ACCURACY_FILE = "accuracy.jsonl"  # one line per case in the output folder; the report reads it
