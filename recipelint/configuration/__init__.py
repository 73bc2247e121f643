"""Configuration as a value: ``[tool.recipelint]`` / ``.recipelint.toml`` read into a ``Config``.

``config`` (the ``Config`` value every stage is handed, with the tree's schema overlay),
``configmodel`` (the pydantic model of a configuration file, imported only when one exists),
``selectors`` (rule selectors such as ``--select RL3`` and a mistyped one's did-you-mean).

It may import ``rulebook``, ``schema`` and ``read`` (and the top-level helpers); nothing
below it imports it back: stages are handed the ``Config``, they do not look it up.
"""
