-- IS NULL / IS NOT NULL in a select list
SELECT id, k IS NULL AS kn, s IS NOT NULL AS sn FROM t
