# Sourced by the scripts that build planted copies: copy_tree DIR copies this tree (without .build
# and results) into DIR, for a clean build of its own, made the same way as CI's (an incremental
# build can lay the code out differently, and some ratios move with the layout).
copy_tree() {
    mkdir -p "$1"
    tar --exclude=./.build --exclude=./results -cf - . | tar -xf - -C "$1"
}
