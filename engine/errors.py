"""The three ways a move can be refused; all are ValueError, with a message a player can act on."""


class NotationError(ValueError):
    """The text cannot be read as a move."""


class IllegalMoveError(ValueError):
    """The move is understood but not allowed here."""


class AmbiguousMoveError(ValueError):
    """The text fits more than one legal move."""
