"""The spec as data and as pure functions: operators and their limits
(catalog, families), data types, the graph every backend builds, the builder
from a case's JSON to that graph, tensor values, the create steps (opspec)
and what a graph costs."""
