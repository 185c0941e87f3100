-- substring(s, 2) to the end, unicode included
SELECT id, substring(s, 2) AS c FROM t
