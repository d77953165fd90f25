# Build htsim_ndp only, out of tree (dmlscope's own file, not htsim's):
#   make -f vendor/htsim/build.mk O=BUILD_DIR/htsim -j2
# Objects and the binary go to $(O); a second run rebuilds nothing.
HERE := $(patsubst %/,%,$(dir $(lastword $(MAKEFILE_LIST))))
O ?= htsim-build
CXX ?= g++
# -w: upstream's warnings are not ours to fix; -O2 as upstream's datacenter/
CXXFLAGS ?= -O2 -std=c++11 -w
SIM := $(HERE)/sim
LIB := aeolusqueue callback_pipe clock compositeprioqueue compositequeue config \
       ecnprioqueue ecnqueue eth_pause_packet eventlist fairpullqueue logfile loggers mtcp \
       ndp ndppacket network pipe priopullqueue prioqueue queue queue_lossless \
       queue_lossless_input queue_lossless_output randomqueue rng route routetable \
       swift_scheduler switch tcp tcp_transfer tcppacket trigger
DC := bcube_topology connection_matrix fat_tree_switch fat_tree_topology firstfit main_ndp \
      multihomed_fat_tree_topology oversubscribed_fat_tree_topology shortflows star_topology \
      vl2_topology
OBJS := $(LIB:%=$(O)/%.o) $(DC:%=$(O)/dc_%.o)
HDRS := $(wildcard $(SIM)/*.h $(SIM)/datacenter/*.h)

$(O)/htsim_ndp: $(OBJS)
	$(CXX) $(CXXFLAGS) $(OBJS) -o $@

$(O)/%.o: $(SIM)/%.cpp $(HDRS) | $(O)
	$(CXX) $(CXXFLAGS) -I$(SIM) -c $< -o $@

$(O)/dc_%.o: $(SIM)/datacenter/%.cpp $(HDRS) | $(O)
	$(CXX) $(CXXFLAGS) -I$(SIM) -I$(SIM)/datacenter -c $< -o $@

$(O):
	mkdir -p $@
