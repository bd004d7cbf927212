"""The rules engine: pure functions, no I/O, no clock, no global random state.

Reach a game through :func:`cardgames.engine.core.registry.get_game`.
"""
