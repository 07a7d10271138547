"""The first screen of the first command says nothing that is no news (issue 42): no warning about
entries of our own shipped known-failure files that match no case of the corpus run, no LiteRT
"Created TensorFlow Lite XNNPACK delegate" line from each worker."""
import subprocess
import sys

import pytest

from webnn_harness.backends import available
from webnn_harness.loading.cases import bundled_corpus


@pytest.mark.parametrize("backend", ["onnxruntime", "openvino", "litert"])
def test_a_run_of_bundled_cases_prints_no_warning_of_shipped_files_nor_the_delegate_banner(tmp_path, backend):
    if backend not in available():
        pytest.skip(f"{backend} is not installed")
    relu = bundled_corpus() / "elementwise" / "relu.json"
    done = subprocess.run([sys.executable, "-m", "webnn_harness", "run", "-q", "--workers", "1", "-b", backend,
                           "--cases", str(relu), "--out", str(tmp_path / "r")],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    assert "expectation matched no case" not in done.stderr
    assert "XNNPACK delegate" not in done.stderr and "XNNPACK delegate" not in done.stdout
    assert done.stderr.strip() == ""
    # the shipped entries that matched nothing are still in the summary
    import json

    report = json.loads((tmp_path / "r" / "summary.json").read_text())["expectations"][backend]
    assert any(e["outcome"] == "unmatched" and e["source"] == f"{backend}/known_failures.json" for e in report)
