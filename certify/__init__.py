"""Search side: turn a FreeCell deal into a certificate that it can or cannot be won."""
