"""``webnn-harness bench``: timed, verified benchmarks of WebNN graphs on a
backend. Suites (harness/bench/suites/*.json) are data; each benchmark's
variants (harness/bench/variants.py) run in a worker process
(harness/bench/worker.py) driven by harness/bench/run.py, and
harness/bench/compare.py tells regressions from noise."""
from webnn_harness.bench.compare import BenchComparison, Change, compare_bench
from webnn_harness.bench.measure import TimingPolicy
from webnn_harness.bench.run import BenchFolderExists, BenchOptions, BenchResult, run_bench
from webnn_harness.bench.suite import Benchmark, Suite, builtin_suites, load_suite

__all__ = ["Benchmark", "BenchComparison", "BenchFolderExists", "BenchOptions", "BenchResult", "Change", "Suite",
           "TimingPolicy", "builtin_suites", "compare_bench", "load_suite", "run_bench"]
