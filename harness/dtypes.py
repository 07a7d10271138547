"""The import path the backend protocol documents for the data types
(``webnn_harness.dtypes.numpy_dtype``, ``webnn_harness.backends.base``): kept
so that out-of-tree backends written against it run unchanged. The table
itself lives in ``webnn_harness.spec.dtypes``."""
from webnn_harness.spec.dtypes import *  # noqa: F401,F403
from webnn_harness.spec.dtypes import numpy_dtype  # noqa: F401 - named for readers and linters
