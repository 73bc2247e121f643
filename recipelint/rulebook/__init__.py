"""The rule catalog as data: each rule's code, name, severity, rationale and examples.

``catalog`` (the top-level ``rules/RL*.yaml`` files read into ``Rule`` entries), ``examples``
(a rule's failing and passing examples, merged into ``rules/base-recipe.yaml``), ``docs``
(rule documentation: ``recipelint rules``, ``explain``, ``docs/rules.md``).

It may import ``schema`` and ``read`` (and the top-level helpers).
"""
