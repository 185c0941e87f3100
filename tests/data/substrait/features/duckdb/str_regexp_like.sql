-- a regular expression match
SELECT id FROM t WHERE regexp_matches(s, '^[a-b].*a$')
