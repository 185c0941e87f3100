-- char_length() counts characters, not bytes
SELECT id, char_length(s) AS n FROM t
