"""Game Table Companion: the referee for a real tabletop dice game.

`companion.rules` is the pure rules engine (no I/O, clocks, threads or randomness);
`companion.session` folds a game record into state and `companion.table` keeps the game in
progress; `companion.appliance` is the edge that wires hardware (`hardware`) and the
slate (`web`) around them.
"""

__version__ = "0.1.0"
