"""How close sums of products come: TOSA's dot-product data sets and
compliance check applied beside the WPT verdict. The command is ``driver.accuracy``."""
