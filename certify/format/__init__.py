"""The certificate format (docs/certificate-format.md): the writer, the reader of every version,
range certificates and the default file names. Imports the game and nothing above it."""
