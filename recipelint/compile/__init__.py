"""Compiling and writing: a tree into upstream's static JSON API, byte for byte.

``publication`` (what a tree publishes, planned once for ``check`` and ``compile``),
``compilation`` and ``compiler`` (one compile in tree order; the library entry points),
``compilerun`` (one ``recipelint compile`` of a tree on disk, streamed or only measured),
``outputpaths``, ``outputmap``, ``failurepointer``, ``placevalues`` (output paths and their
safety; in-memory output; which value a failed rendering is about), ``emit`` (the only code
that writes compiled output), ``carryover`` and ``cache`` (``--cache``'s kept output),
``provenance`` (the ``source`` block of each recipe JSON).

It may import ``resolve``, ``flags``, ``read`` and the layers below them, never ``rules`` or
``check``: the rules and the compiler are siblings that share ``resolve``.
"""
