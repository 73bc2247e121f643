"""recipelint: lint vLLM deployment recipes and compile them into the JSON API."""

__version__ = "0.1.0"
