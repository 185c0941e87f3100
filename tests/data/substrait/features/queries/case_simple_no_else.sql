-- simple CASE without ELSE
SELECT id, CASE b WHEN true THEN 'yes' WHEN false THEN 'no' END AS c FROM t
