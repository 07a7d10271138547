"""How close sums of products come: TOSA's dot-product data sets and
compliance check applied beside the WPT verdict. The command is ``driver.accuracy``."""

from webnn_harness.outputs.accuracy_records import ACCURACY_FILE  # noqa: F401 - one line per case; the report reads it
