-- char_length() counts characters, not bytes
SELECT id, length(s) AS n FROM t
