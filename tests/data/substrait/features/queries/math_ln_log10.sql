-- ln() and log10() of positive values
SELECT id, ln(bi) AS l1, log10(bi) AS l2 FROM t WHERE bi > 0
