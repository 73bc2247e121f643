"""One ``recipelint check`` run: the stages over a loaded tree, combined into findings.

``engine`` (the schema, rule and rendering stages, then configuration and suppressions),
``checking`` (``check`` of named paths: trees, stdin, new-versus-old findings),
``renderstage`` (what publishing the recipes in focus reveals, RL70x), ``rulecache``
(a recipe's rule findings kept between runs).

It may import ``report`` and everything below it (``rules``, ``compile``, ``configuration``,
``rulebook``, ``schema``, ``resolve``, ``flags``, ``read``); ``fix``, ``lsp`` and the
commands import it.
"""
