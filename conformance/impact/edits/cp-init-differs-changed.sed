# As cp-init-differs, and the initConfiguration changes again.
/^        initConfiguration:$/,/^        joinConfiguration:$/ s/nodefs\.available<0%/nodefs.available<6%/
