"""Pure functions that decide what the compiler renders; nothing here reads or writes files.

- hardware: precision constraints, default hardware, the per-variant hardware list,
  fitting-variant substitution on boxes that cannot scale out
- strategy: compatible strategies, GPU floors and node counts, the recommended
  strategy, PD pool modes and node counts
- features: default feature set, mode choice, feature args, companions, mode checks
- formatting: last-wins dedupe, shell quoting, command and argv
- docker: image choice and the `docker run` wrappers
- install: the published `model.install` block
- layers: where a recipe's args/env lists live, their scope and upstream's join order
  (the one model the renderer, the rules, the fixer and the compiler read), and is_omni
- command: one rendering document: the layers joined around the strategy emitter's tokens
- plan: recommended strategy and alternatives for one (variant, hardware)
"""
