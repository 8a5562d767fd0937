console.log("notes")
