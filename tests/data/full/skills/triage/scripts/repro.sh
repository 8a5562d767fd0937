#!/bin/sh
echo "reproducing $1"
