-- EXCEPT ALL keeps m - n copies
SELECT k FROM t EXCEPT ALL SELECT k FROM u
