# The DevMachinePoolTemplate changes its spec.
s/^        docker: {}$/        docker:\n          preLoadImages: [registry.example.com\/app:v1]/
