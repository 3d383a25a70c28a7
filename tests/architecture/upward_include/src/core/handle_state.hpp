// A stand-in for the real header: the fixture only needs the path to exist.
#pragma once
