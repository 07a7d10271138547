"""webnn-harness: conformance and capability probing for WebNN operators."""

__version__ = "0.1.0"
