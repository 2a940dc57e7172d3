"""Game Table Companion: the referee for a real tabletop dice game.

`companion.rules` is the pure rules engine (no I/O, clocks, threads or randomness);
`companion.session` folds a game record into state; the rest of the package is the
edge that wires hardware (`hardware`) and the slate (`web`) around it.
"""

__version__ = "0.1.0"
