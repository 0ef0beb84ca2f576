#!/bin/sh
# The server boots no root: satisfy dracut's init so it reaches the pre-mount hook.
root=e2e-server
rootok=1
