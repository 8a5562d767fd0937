#!/bin/sh
echo checked
