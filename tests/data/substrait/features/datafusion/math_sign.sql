-- sign() of doubles
SELECT id, signum(f8) AS sg FROM t
