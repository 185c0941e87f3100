-- a regular expression match
SELECT id FROM t WHERE regexp_like(s, '^[a-b].*a$')
