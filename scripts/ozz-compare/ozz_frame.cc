// ozz-animation's frame on a skinbench rig: a crowd sampled, taken to model space, given a
// skinning palette and skinned by ozz-animation's own jobs, timed the way skinbench's
// crowd bench times its CPU stages, so the two can be compared on one machine.
//
//     ozz_frame RIG.skoz [--instances N] [--frames F] [--threads T]
//
// RIG.skoz comes from `cargo run --release --example ozz_input -- RIG OUT`.
//
// How it works: the rig's skeleton and clips are built into ozz's runtime types with its
// offline builders (RawSkeleton, RawAnimation: ozz interpolates keys linearly). The mesh is
// split into parts by influence count, as ozz's own skinning sample does, and each part is
// one SkinningJob per character writing positions and normals (24 bytes a vertex) into
// that character's output. Every character plays clip `i % clips` from its own start time
// and advances 1/60 s a frame. A frame is the four jobs for every character, its characters
// split into one contiguous range per thread (the calling thread takes the first; the rest
// start with the frame and are joined at its end, which costs a few tens of µs a frame).
// Before timing, character 0 is posed at the file's check clip and time and its positions
// are compared with skinbench's f64 oracle at the same pose.
//
// Output: one line per figure, medians over the frames (µs): the frame's wall time, and
// each job's time summed over every character (and thread).

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "ozz/animation/offline/animation_builder.h"
#include "ozz/animation/offline/raw_animation.h"
#include "ozz/animation/offline/raw_skeleton.h"
#include "ozz/animation/offline/skeleton_builder.h"
#include "ozz/animation/runtime/animation.h"
#include "ozz/animation/runtime/local_to_model_job.h"
#include "ozz/animation/runtime/sampling_job.h"
#include "ozz/animation/runtime/skeleton.h"
#include "ozz/base/maths/simd_math.h"
#include "ozz/base/maths/soa_transform.h"
#include "ozz/base/memory/unique_ptr.h"
#include "ozz/geometry/runtime/skinning_job.h"

namespace {

namespace oa = ozz::animation;
namespace om = ozz::math;

constexpr int kMaxInfluences = 8;
constexpr float kFrameSecs = 1.0f / 60.0f;

[[noreturn]] void Fail(const std::string& what) {
  std::fprintf(stderr, "ozz_frame: %s\n", what.c_str());
  std::exit(1);
}

// Reads the file's fields in order; every count is checked against the bytes left before
// anything is allocated for it, so a short or corrupt file is named, never over-read.
class Reader {
 public:
  Reader(std::vector<char> bytes, std::string path)
      : bytes_(std::move(bytes)), path_(std::move(path)) {}

  template <typename T>
  T Get() {
    Need(sizeof(T), "a field");
    T value;
    std::memcpy(&value, bytes_.data() + at_, sizeof(T));
    at_ += sizeof(T);
    return value;
  }
  void GetFloats(float* out, size_t n) {
    for (size_t i = 0; i < n; ++i) out[i] = Get<float>();
  }
  // A count of items of at least `item_bytes` each, no more than the bytes left hold.
  uint32_t Count(size_t item_bytes, const char* what) {
    const uint32_t n = Get<uint32_t>();
    if (item_bytes > 0 && n > (bytes_.size() - at_) / item_bytes) {
      Fail(path_ + ": " + what + " count " + std::to_string(n) +
           " is more than the file holds");
    }
    return n;
  }
  void Need(size_t n, const char* what) const {
    if (bytes_.size() - at_ < n) {
      Fail(path_ + ": the file ends inside " + what + " (at byte " + std::to_string(at_) +
           ")");
    }
  }
  bool AtEnd() const { return at_ == bytes_.size(); }
  const std::string& path() const { return path_; }

 private:
  std::vector<char> bytes_;
  std::string path_;
  size_t at_ = 0;
};

struct Key {
  float time;
  float value[4];
};

struct Rig {
  float size = 0;
  std::vector<int> parents;
  std::vector<om::Transform> rest;
  std::vector<om::Float4x4> root_parents;
  struct Clip {
    float duration;
    // [joint][0 translation, 1 rotation, 2 scale]
    std::vector<std::vector<Key>> tracks;
  };
  std::vector<Clip> clips;
  std::vector<int> palette_joints;
  std::vector<om::Float4x4> joint_from_bind;
  struct Vertex {
    float position[3];
    float normal[3];
    uint32_t influences;
    uint16_t joints[kMaxInfluences];
    float weights[kMaxInfluences];
  };
  std::vector<Vertex> vertices;
  uint32_t check_clip = 0;
  float check_time = 0;
  std::vector<double> check_positions;
};

om::Float4x4 ReadMatrix(Reader& r) {
  float m[16];
  r.GetFloats(m, 16);
  om::Float4x4 out;
  for (int c = 0; c < 4; ++c) out.cols[c] = om::simd_float4::LoadPtrU(m + 4 * c);
  return out;
}

Rig Load(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) Fail(path + ": cannot open the file");
  std::vector<char> bytes((std::istreambuf_iterator<char>(file)),
                          std::istreambuf_iterator<char>());
  Reader r(std::move(bytes), path);
  r.Need(4, "the magic");
  char magic[4];
  for (char& c : magic) c = r.Get<char>();
  if (std::memcmp(magic, "SKOZ", 4) != 0) {
    Fail(path + ": not a file written by `cargo run --example ozz_input` (no SKOZ magic)");
  }
  const uint32_t version = r.Get<uint32_t>();
  if (version != 1) Fail(path + ": version " + std::to_string(version) + ", expected 1");
  Rig rig;
  rig.size = r.Get<float>();

  const uint32_t joints = r.Count(4 + 40, "joint");
  if (joints == 0 || joints > static_cast<uint32_t>(oa::Skeleton::kMaxJoints)) {
    Fail(path + ": " + std::to_string(joints) + " joints; ozz-animation takes 1 to " +
         std::to_string(oa::Skeleton::kMaxJoints));
  }
  for (uint32_t j = 0; j < joints; ++j) {
    const int32_t parent = r.Get<int32_t>();
    if (parent < -1 || parent >= static_cast<int32_t>(j)) {
      Fail(path + ": joint " + std::to_string(j) + " has parent " + std::to_string(parent) +
           " (a parent comes before its children)");
    }
    rig.parents.push_back(parent);
    om::Transform t;
    r.GetFloats(&t.translation.x, 3);
    r.GetFloats(&t.rotation.x, 4);
    r.GetFloats(&t.scale.x, 3);
    rig.rest.push_back(t);
  }
  const uint32_t roots = r.Count(64, "root");
  for (uint32_t i = 0; i < roots; ++i) rig.root_parents.push_back(ReadMatrix(r));
  if (roots == 0) Fail(path + ": no root transform");

  const uint32_t clips = r.Count(4 + 12 * size_t{joints}, "clip");
  if (clips == 0) Fail(path + ": no clip");
  for (uint32_t c = 0; c < clips; ++c) {
    Rig::Clip clip;
    clip.duration = r.Get<float>();
    if (!(clip.duration >= 0.0f) || !std::isfinite(clip.duration)) {
      Fail(path + ": clip " + std::to_string(c) + " has duration " +
           std::to_string(clip.duration));
    }
    clip.tracks.resize(size_t{joints} * 3);
    for (uint32_t j = 0; j < joints; ++j) {
      for (int property = 0; property < 3; ++property) {
        const int width = property == 1 ? 4 : 3;
        std::vector<Key>& keys = clip.tracks[size_t{j} * 3 + property];
        const uint32_t n = r.Count(4 * (1 + size_t(width)), "key");
        keys.resize(n);
        for (Key& k : keys) {
          k.time = r.Get<float>();
          r.GetFloats(k.value, width);
        }
      }
    }
    rig.clips.push_back(std::move(clip));
  }

  const uint32_t entries = r.Count(4 + 64, "palette entry");
  for (uint32_t e = 0; e < entries; ++e) {
    const uint32_t joint = r.Get<uint32_t>();
    if (joint >= joints) {
      Fail(path + ": palette entry " + std::to_string(e) + " follows joint " +
           std::to_string(joint) + " of " + std::to_string(joints));
    }
    rig.palette_joints.push_back(static_cast<int>(joint));
    rig.joint_from_bind.push_back(ReadMatrix(r));
  }

  const uint32_t vertices = r.Count(28 + 16 + 32, "vertex");
  rig.vertices.resize(vertices);
  for (uint32_t v = 0; v < vertices; ++v) {
    Rig::Vertex& x = rig.vertices[v];
    r.GetFloats(x.position, 3);
    r.GetFloats(x.normal, 3);
    x.influences = r.Get<uint32_t>();
    for (uint16_t& j : x.joints) j = r.Get<uint16_t>();
    r.GetFloats(x.weights, kMaxInfluences);
    if (x.influences < 1 || x.influences > kMaxInfluences) {
      Fail(path + ": vertex " + std::to_string(v) + " has " + std::to_string(x.influences) +
           " influences");
    }
    for (uint32_t i = 0; i < x.influences; ++i) {
      if (x.joints[i] >= entries) {
        Fail(path + ": vertex " + std::to_string(v) + " names palette entry " +
             std::to_string(x.joints[i]) + " of " + std::to_string(entries));
      }
    }
  }

  rig.check_clip = r.Get<uint32_t>();
  if (rig.check_clip >= clips) Fail(path + ": the check names a clip past the clips");
  rig.check_time = r.Get<float>();
  r.Need(size_t{vertices} * 24, "the check's positions");
  rig.check_positions.resize(size_t{vertices} * 3);
  for (double& p : rig.check_positions) p = r.Get<double>();
  if (!r.AtEnd()) Fail(path + ": bytes past the check");
  return rig;
}

// The skeleton in ozz's types, and where each of the file's joints went in ozz's order.
struct Built {
  ozz::unique_ptr<oa::Skeleton> skeleton;
  std::vector<int> ozz_joint;  // file joint -> ozz joint
  std::vector<ozz::unique_ptr<oa::Animation>> animations;
};

Built Build(const Rig& rig) {
  const int joints = static_cast<int>(rig.parents.size());
  std::vector<std::vector<int>> children(joints);
  std::vector<int> roots;
  for (int j = 0; j < joints; ++j) {
    (rig.parents[j] < 0 ? roots : children[rig.parents[j]]).push_back(j);
  }
  // Built bottom-up: a joint's children are whole before it is moved into its parent.
  std::vector<oa::offline::RawSkeleton::Joint> made(joints);
  for (int j = joints - 1; j >= 0; --j) {
    made[j].name = "j" + std::to_string(j);
    made[j].transform = rig.rest[j];
    for (int c : children[j]) made[j].children.push_back(std::move(made[c]));
  }
  oa::offline::RawSkeleton raw_skeleton;
  for (int r : roots) raw_skeleton.roots.push_back(std::move(made[r]));
  Built built;
  built.skeleton = oa::offline::SkeletonBuilder()(raw_skeleton);
  if (!built.skeleton) Fail("ozz-animation's SkeletonBuilder refused the skeleton");
  built.ozz_joint.assign(joints, -1);
  const auto names = built.skeleton->joint_names();
  for (int o = 0; o < static_cast<int>(names.size()); ++o) {
    built.ozz_joint[std::atoi(names[o] + 1)] = o;
  }

  for (size_t c = 0; c < rig.clips.size(); ++c) {
    const Rig::Clip& clip = rig.clips[c];
    oa::offline::RawAnimation raw;
    // ozz wants a duration above 0 and every key within it.
    raw.duration = std::max(clip.duration, 1e-3f);
    raw.tracks.resize(joints);
    for (int j = 0; j < joints; ++j) {
      auto& track = raw.tracks[built.ozz_joint[j]];
      const om::Transform& rest = rig.rest[j];
      const auto time = [&](const Key& k) { return std::clamp(k.time, 0.0f, raw.duration); };
      const auto& t = clip.tracks[size_t(j) * 3 + 0];
      const auto& q = clip.tracks[size_t(j) * 3 + 1];
      const auto& s = clip.tracks[size_t(j) * 3 + 2];
      // A joint without a track keeps its rest value (ozz's empty track is the identity).
      if (t.empty()) track.translations.push_back({0.0f, rest.translation});
      for (const Key& k : t) {
        track.translations.push_back({time(k), om::Float3(k.value[0], k.value[1], k.value[2])});
      }
      if (q.empty()) track.rotations.push_back({0.0f, rest.rotation});
      for (const Key& k : q) {
        track.rotations.push_back(
            {time(k), om::Quaternion(k.value[0], k.value[1], k.value[2], k.value[3])});
      }
      if (s.empty()) track.scales.push_back({0.0f, rest.scale});
      for (const Key& k : s) {
        track.scales.push_back({time(k), om::Float3(k.value[0], k.value[1], k.value[2])});
      }
    }
    if (!raw.Validate()) {
      Fail("clip " + std::to_string(c) + ": ozz-animation's RawAnimation refused it (key " +
           "times not strictly increasing)");
    }
    auto animation = oa::offline::AnimationBuilder()(raw);
    if (!animation) Fail("clip " + std::to_string(c) + ": AnimationBuilder failed");
    built.animations.push_back(std::move(animation));
  }
  return built;
}

// The mesh's vertices with k influences, in ozz's part layout: k joint indices and k - 1
// weights a vertex (the last weight is one minus the others).
struct Part {
  int influences;
  int vertices = 0;
  std::vector<float> positions, normals, weights;
  std::vector<uint16_t> joints;
};

std::vector<Part> Parts(const Rig& rig) {
  std::vector<Part> parts;
  for (int k = 1; k <= kMaxInfluences; ++k) {
    Part part;
    part.influences = k;
    for (const Rig::Vertex& v : rig.vertices) {
      if (static_cast<int>(v.influences) != k) continue;
      part.vertices += 1;
      part.positions.insert(part.positions.end(), v.position, v.position + 3);
      part.normals.insert(part.normals.end(), v.normal, v.normal + 3);
      part.joints.insert(part.joints.end(), v.joints, v.joints + k);
      part.weights.insert(part.weights.end(), v.weights, v.weights + k - 1);
    }
    if (part.vertices > 0) parts.push_back(std::move(part));
  }
  return parts;
}

struct Character {
  int clip;
  float time_secs;
  oa::SamplingJob::Context context;
  std::vector<om::SoaTransform> locals;
  std::vector<om::Float4x4> models;
  std::vector<om::Float4x4> palette;
  std::vector<float> out;  // 6 floats a vertex: position, normal, in the parts' order
};

// Nanoseconds spent in each job, summed over a thread's characters.
struct Spent {
  int64_t sample = 0, model = 0, palette = 0, skin = 0;
};

int64_t Now() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

class Crowd {
 public:
  Crowd(const Rig& rig, const Built& built, std::vector<Part> parts, int instances)
      : rig_(rig), built_(built), parts_(std::move(parts)), characters_(instances) {
    const int joints = built.skeleton->num_joints();
    for (const Part& p : parts_) vertex_count_ += p.vertices;
    for (int i = 0; i < instances; ++i) {
      Character& c = characters_[i];
      c.clip = i % static_cast<int>(built.animations.size());
      c.time_secs = 0.37f * static_cast<float>(i);
      c.context.Resize(joints);
      c.locals.resize(built.skeleton->num_soa_joints());
      c.models.resize(joints);
      c.palette.resize(rig.palette_joints.size());
      c.out.resize(size_t(vertex_count_) * 6);
    }
  }

  // Poses and skins characters [begin, end).
  Spent Run(int begin, int end) {
    Spent spent;
    for (int i = begin; i < end; ++i) {
      Character& c = characters_[i];
      const oa::Animation& animation = *built_.animations[c.clip];
      int64_t t0 = Now();
      oa::SamplingJob sampling;
      sampling.animation = &animation;
      sampling.context = &c.context;
      const float duration = animation.duration();
      sampling.ratio = std::fmod(c.time_secs, duration) / duration;
      sampling.output = ozz::make_span(c.locals);
      if (!sampling.Run()) Fail("SamplingJob failed");
      int64_t t1 = Now();
      oa::LocalToModelJob ltm;
      ltm.skeleton = built_.skeleton.get();
      ltm.root = &rig_.root_parents[0];
      ltm.input = ozz::make_span(c.locals);
      ltm.output = ozz::make_span(c.models);
      if (!ltm.Run()) Fail("LocalToModelJob failed");
      int64_t t2 = Now();
      for (size_t e = 0; e < c.palette.size(); ++e) {
        c.palette[e] = c.models[built_.ozz_joint[rig_.palette_joints[e]]] * rig_.joint_from_bind[e];
      }
      int64_t t3 = Now();
      float* out = c.out.data();
      for (const Part& p : parts_) {
        ozz::geometry::SkinningJob skin;
        skin.vertex_count = p.vertices;
        skin.influences_count = p.influences;
        skin.joint_matrices = ozz::make_span(c.palette);
        skin.joint_indices = ozz::make_span(p.joints);
        skin.joint_indices_stride = sizeof(uint16_t) * p.influences;
        if (p.influences > 1) {
          skin.joint_weights = ozz::make_span(p.weights);
          skin.joint_weights_stride = sizeof(float) * (p.influences - 1);
        }
        skin.in_positions = ozz::make_span(p.positions);
        skin.in_positions_stride = sizeof(float) * 3;
        skin.in_normals = ozz::make_span(p.normals);
        skin.in_normals_stride = sizeof(float) * 3;
        const size_t floats = size_t(p.vertices) * 6;
        skin.out_positions = {out, out + floats};
        skin.out_positions_stride = sizeof(float) * 6;
        skin.out_normals = {out + 3, out + floats};
        skin.out_normals_stride = sizeof(float) * 6;
        if (!skin.Run()) Fail("SkinningJob failed");
        out += floats;
      }
      int64_t t4 = Now();
      spent.sample += t1 - t0;
      spent.model += t2 - t1;
      spent.palette += t3 - t2;
      spent.skin += t4 - t3;
    }
    return spent;
  }

  void Advance() {
    for (Character& c : characters_) c.time_secs += kFrameSecs;
  }

  // Character 0 at the file's check pose, against the f64 oracle's positions: the largest
  // distance, over the rig's size.
  double CheckError() {
    Character& c = characters_[0];
    const int clip = c.clip;
    const float time = c.time_secs;
    c.clip = static_cast<int>(rig_.check_clip);
    c.time_secs = rig_.check_time;
    Run(0, 1);
    c.clip = clip;
    c.time_secs = time;
    // The output is in the parts' order: walk the vertices the same way.
    double worst = 0;
    size_t at = 0;
    for (const Part& p : parts_) {
      for (size_t v = 0; v < rig_.vertices.size(); ++v) {
        if (static_cast<int>(rig_.vertices[v].influences) != p.influences) continue;
        for (int k = 0; k < 3; ++k) {
          worst = std::max(worst, std::abs(double(c.out[at * 6 + k]) -
                                           rig_.check_positions[v * 3 + k]));
        }
        at += 1;
      }
    }
    return worst / std::max(double(rig_.size), 1e-30);
  }

  int vertex_count() const { return vertex_count_; }

 private:
  const Rig& rig_;
  const Built& built_;
  std::vector<Part> parts_;
  int vertex_count_ = 0;
  std::vector<Character> characters_;
};

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

int Arg(int argc, char** argv, int& i, const char* flag) {
  if (i + 1 >= argc) Fail(std::string(flag) + " needs a value");
  char* end = nullptr;
  const long value = std::strtol(argv[++i], &end, 10);
  if (*end != '\0' || value < 1 || value > 1000000) {
    Fail(std::string(flag) + " " + argv[i] + ": expected a whole number from 1 to 1000000");
  }
  return static_cast<int>(value);
}

}  // namespace

int main(int argc, char** argv) {
  std::string path;
  int instances = 1000, frames = 60, threads = 1;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--instances") {
      instances = Arg(argc, argv, i, "--instances");
    } else if (a == "--frames") {
      frames = Arg(argc, argv, i, "--frames");
    } else if (a == "--threads") {
      threads = Arg(argc, argv, i, "--threads");
      if (threads > 256) Fail("--threads: at most 256");
    } else if (path.empty() && a.rfind("--", 0) != 0) {
      path = a;
    } else {
      Fail("unknown argument " + a +
           "\nusage: ozz_frame RIG.skoz [--instances N] [--frames F] [--threads T]");
    }
  }
  if (path.empty()) Fail("usage: ozz_frame RIG.skoz [--instances N] [--frames F] [--threads T]");

  const Rig rig = Load(path);
  const Built built = Build(rig);
  // Each character keeps its output, poses and sampling cache: refuse a crowd this
  // machine's memory cannot hold, by name, before allocating it.
  const double character_bytes = 24.0 * double(rig.vertices.size()) +
                                 2 * 64.0 * double(rig.parents.size()) +
                                 64.0 * double(rig.palette_joints.size());
  const double memory_bytes =
      double(sysconf(_SC_PHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (character_bytes * instances > 0.8 * memory_bytes) {
    Fail("--instances " + std::to_string(instances) + ": the crowd needs about " +
         std::to_string(int64_t(character_bytes * instances / 1e9)) +
         " GB, more than this machine's memory allows");
  }
  Crowd crowd(rig, built, Parts(rig), instances);
  const double check = crowd.CheckError();
  std::printf("rig: %s, %zu joints, %zu clips, %d vertices skinned a character\n",
              path.c_str(), rig.parents.size(), rig.clips.size(), crowd.vertex_count());
  std::printf("check: character 0 against skinbench's f64 oracle: positions off by at most "
              "%.2e of the rig size\n",
              check);
  // ozz stores rotations in 16 bits a component, so its poses sit about 1e-4 of the rig
  // size from the oracle; ten times that is a different pose, not rounding.
  if (!(check <= 1e-3)) Fail("character 0 does not match the oracle's pose (beyond 1e-3)");
  threads = std::min(threads, instances);

  std::vector<double> frame_us, sample_us, model_us, palette_us, skin_us;
  std::vector<Spent> spent(threads);
  // One frame untimed: first-touch of every character's output.
  for (int f = -1; f < frames; ++f) {
    const int64_t start = Now();
    std::vector<std::thread> helpers;
    for (int t = 1; t < threads; ++t) {
      helpers.emplace_back([&, t] {
        spent[t] = crowd.Run(int(int64_t(instances) * t / threads),
                             int(int64_t(instances) * (t + 1) / threads));
      });
    }
    spent[0] = crowd.Run(0, int(int64_t(instances) / threads));
    for (std::thread& h : helpers) h.join();
    const int64_t end = Now();
    crowd.Advance();
    if (f < 0) continue;
    Spent sum;
    for (const Spent& s : spent) {
      sum.sample += s.sample;
      sum.model += s.model;
      sum.palette += s.palette;
      sum.skin += s.skin;
    }
    frame_us.push_back((end - start) / 1e3);
    sample_us.push_back(sum.sample / 1e3);
    model_us.push_back(sum.model / 1e3);
    palette_us.push_back(sum.palette / 1e3);
    skin_us.push_back(sum.skin / 1e3);
  }
  std::printf("characters: %d, threads: %d, frames: %d (medians, µs)\n", instances, threads,
              frames);
  std::printf("frame: %.0f\n", Median(frame_us));
  std::printf("sample (summed over threads): %.0f\n", Median(sample_us));
  std::printf("local to model (summed): %.0f\n", Median(model_us));
  std::printf("palette (summed): %.0f\n", Median(palette_us));
  std::printf("skin (summed): %.0f\n", Median(skin_us));
  return 0;
}
