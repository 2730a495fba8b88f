"""The longest strings the record (and so a snapshot) holds: names and paths, free text, whole texts."""

NAME_LIMIT = 4096           # a name or a path
TEXT_LIMIT = 65536          # free text: a source line, a message
LONG_TEXT_LIMIT = 4 * 2**20  # a whole text: a traceback, one console write
