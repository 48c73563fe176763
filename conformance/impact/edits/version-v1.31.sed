# The Cluster at v1.31.4 (the base of a four-minor chained upgrade).
s/version: v1\.34\.1$/version: v1.31.4/
