// Files in a folder a client may have written (the run folder's view/): kdbgen
// reads, makes and removes them without ever following a link (beneath.cpp).
//
// A client (the library, the compilers it starts) can write anything in its
// run folder while it runs: files, folders and links, in place of the folders
// kdbgen makes for the next pass. Every path here is relative to a folder that
// kdbgen made and the client cannot replace (the view's mount point), and is
// walked one part at a time with O_NOFOLLOW: a link anywhere is refused, so
// nothing kdbgen does here reads, writes or removes anything outside.
#pragma once

#include "kdbgen/util.hpp"

#include <optional>
#include <string>
#include <vector>

namespace kdbgen::engine {

class Beneath {
public:
    explicit Beneath(const fs::path& base);  // base: kdbgen's own folder, opened now
    ~Beneath();
    Beneath(const Beneath&) = delete;
    Beneath& operator=(const Beneath&) = delete;

    const fs::path& base() const { return base_; }

    // Makes the folders of `relative` that are missing; throws InputError
    // naming the path when a part is a link or no folder.
    void make_folders(const fs::path& relative) const;
    // A new file (one already there, of any kind, is refused).
    void write_new_file(const fs::path& relative, std::string_view text) const;
    // A regular file's bytes, at most max_bytes (more is an error); nullopt when
    // it does not exist. A link or another kind of file is an InputError.
    std::optional<Bytes> read_file(const fs::path& relative, std::size_t max_bytes) const;
    // The regular files under `relative` whose names end in `suffix`, as
    // paths relative to base; links and other kinds are named in `refused`.
    std::vector<fs::path> find_files(const fs::path& relative, std::string_view suffix,
                                     std::vector<std::string>& refused) const;
    // Copies the folders and regular files of `from` to `to` (made here);
    // links and other kinds are left out and named in `refused`.
    void copy_tree(const fs::path& from, const fs::path& to, std::vector<std::string>& refused) const;
    // Removes `relative` and what it holds; a link is removed, never followed.
    void remove_tree(const fs::path& relative) const;

private:
    fs::path base_;
    int fd_ = -1;
};

}  // namespace kdbgen::engine
