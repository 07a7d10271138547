"""``webnn-harness bench``: timed, verified benchmarks of WebNN graphs on a
backend. Suites (harness/bench/suites/*.json) are data; each benchmark's
variants (harness/bench/variants.py) run in a worker process
(harness/bench/worker.py) driven by harness/bench/driver.py, and
harness/bench/regressions.py tells regressions from noise."""
