-- IS TRUE / IS NOT FALSE over a boolean with NULLs
SELECT id, b IS TRUE AS t1, b IS NOT FALSE AS t2 FROM t
