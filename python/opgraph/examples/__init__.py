"""Runnable examples bundled with opgraph (``python -m opgraph.examples.custom_op``)."""
