"""The import path the backend protocol documents for ``Graph``
(``webnn_harness.backends.base``): kept so that out-of-tree backends written
against it run unchanged. The graph itself lives in ``webnn_harness.spec.graph``."""
from webnn_harness.spec.graph import *  # noqa: F401,F403
from webnn_harness.spec.graph import Graph, Node, TensorDesc  # noqa: F401 - named for readers and linters
